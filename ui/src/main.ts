import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';

const target = document.getElementById('root');
if (!target) throw new Error('index.html has no #root element');

export default mount(App, { target });
